int f(int x)
{
    if (x)
        goto nowhere;
    return x;
}
