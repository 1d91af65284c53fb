int f(int x)
{
again:
    x = x + 1;
    if (x < 10)
        goto again;
    return x;
}
