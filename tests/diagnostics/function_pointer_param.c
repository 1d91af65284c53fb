int f(int (*g)(int), int x)
{
    return g(x);
}
