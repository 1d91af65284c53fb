void f(volatile float *p, float x)
{
    if (x > 0)
        *p = x;
}
