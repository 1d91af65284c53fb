int f(int x)
{
    int y = x + 1
    return y;
}
