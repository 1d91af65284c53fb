int f(int x)
{
    return mystery(x);
}
