int f(int x)
{
    int y = x++ * 2;
    return x + y;
}
