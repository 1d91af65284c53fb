int f(int x)
{
    extern int e;
    return x + e;
}
