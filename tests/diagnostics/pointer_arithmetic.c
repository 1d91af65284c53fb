float f(float *p, int i)
{
    return *(p + i);
}
