_Thread_local int tls;

int f(int x)
{
    tls = x;
    return x;
}
