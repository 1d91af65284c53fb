int f(int x)
{
    return _Generic(x, int: 1, default: 2);
}
