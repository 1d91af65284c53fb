static int g;

int f(int x)
{
    g = x;
    return x;
}
