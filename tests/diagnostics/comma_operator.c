int f(int x)
{
    int y;
    y = (x, 2);
    return y;
}
