static const int t[2] = {[1] = 3};

int f(int x)
{
    return t[x & 1] + x;
}
