static int twice(int v)
{
    return 2 * v;
}

int f(int x)
{
    int (*g)(int) = twice;
    return g(x);
}
