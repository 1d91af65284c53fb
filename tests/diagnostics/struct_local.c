struct s {
    int a;
};

int f(int x)
{
    struct s v;
    v.a = x;
    return v.a;
}
