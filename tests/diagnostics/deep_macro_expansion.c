#define A(x) ((x) + 1)
#define B(x) A(A(A(A(x))))
#define C(x) B(B(B(B(x))))
#define D(x) C(C(C(C(x))))
#define E(x) D(D(D(D(x))))

int f(int x)
{
    return E(E(x));
}
