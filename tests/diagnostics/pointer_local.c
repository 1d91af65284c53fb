int f(int x)
{
    int y = x + 1;
    int *p = &x;
    if (x > 0)
        p = &y;
    return *p;
}
