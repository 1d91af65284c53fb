int f(int x)
{
    int a, b;
    a = b = x;
    return a + b;
}
