struct s {
    unsigned a : 3;
};

int f(int x)
{
    struct s v;
    v.a = x;
    return v.a;
}
