int f(int x)
{
    int *p = &x;
    return *p;
}
