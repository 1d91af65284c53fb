int f(int x)
{
    x + 1 = 2;
    return x;
}
