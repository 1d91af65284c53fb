int f(long x)
{
    int *p = (int *) x;
    return *p;
}
