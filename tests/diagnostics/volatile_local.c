int f(int x)
{
    volatile int y = x;
    return y;
}
