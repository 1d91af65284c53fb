int f(int n)
{
    return sizeof(int[n]);
}
