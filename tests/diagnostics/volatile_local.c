int f(int x)
{
    volatile int y[2] = {x, x};
    return y[0];
}
