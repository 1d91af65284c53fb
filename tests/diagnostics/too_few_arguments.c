static int g(int a, int b)
{
    return a + b;
}

int f(int x)
{
    return g(x);
}
