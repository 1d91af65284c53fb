int f(int x)
{
    if (x)
        break;
    return x;
}
