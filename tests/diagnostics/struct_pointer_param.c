struct s {
    int a;
    int b;
};

int f(struct s *p)
{
    return p->a + p->b;
}
