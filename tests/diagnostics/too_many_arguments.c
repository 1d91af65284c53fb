static int g(int a)
{
    return a;
}

int f(int x)
{
    return g(x, x);
}
