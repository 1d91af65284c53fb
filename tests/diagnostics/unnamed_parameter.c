int f(int x, int)
{
    return x;
}
