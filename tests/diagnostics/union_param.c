union u {
    int i;
    float f;
};

int f(union u v)
{
    return v.i;
}
