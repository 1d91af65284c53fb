float f(float *p)
{
    p++;
    return *p;
}
