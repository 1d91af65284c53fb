int f(int x)
{
    return y;
}
