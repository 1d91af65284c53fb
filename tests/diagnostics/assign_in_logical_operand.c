int f(int x)
{
    int y = 0;
    if (x > 0 && (y = x) > 2)
        return y;
    return 0;
}
