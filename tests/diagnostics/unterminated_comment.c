int f(int x)
{
    /* this comment never ends
    return x;
}
