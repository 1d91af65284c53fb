int f(int x)
{
    int y;
    if ((y = x) > 2)
        return y;
    return 0;
}
