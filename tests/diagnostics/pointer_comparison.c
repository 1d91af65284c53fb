int f(float *p, float *q)
{
    return p < q;
}
