int f(int x)
{
a:
    x++;
a:
    return x;
}
