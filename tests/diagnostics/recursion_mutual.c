static int h(int x);

static int g(int x)
{
    return x > 0 ? h(x - 1) : 0;
}

static int h(int x)
{
    return g(x);
}

int f(int x)
{
    return g(x);
}
