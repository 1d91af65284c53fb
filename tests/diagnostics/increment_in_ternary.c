int f(int x)
{
    int n = 0;
    return x > 2 ? n++ : x;
}
