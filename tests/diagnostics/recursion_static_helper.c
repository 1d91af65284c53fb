static int g(int x)
{
    if (x)
        return g(x - 1);
    return 1;
}

int f(int x)
{
    return g(x);
}
