int total;

int f(int x)
{
    total += x;
    return x;
}
