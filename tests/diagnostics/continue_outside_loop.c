int f(int x)
{
    if (x)
        continue;
    return x;
}
