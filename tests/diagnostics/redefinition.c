int f(int x)
{
    return x;
}

int f(int x)
{
    return x + 1;
}
