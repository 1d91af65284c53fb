float *f(float *p)
{
    return p;
}
