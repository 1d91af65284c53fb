struct s {
    int a;
    int *p;
};

int f(int x)
{
    struct s v;
    v.a = x;
    return v.a;
}
