/* Found by expand-fuzz --isa sse2 (seed 20261126, program 84; reduced by hand).
   expand-fuzz: isa sse2

   Bug: "internal: a branch kept as uniform has a condition that varies between lanes" (the fuzz
   program: a union's double, counted down in a later divergent loop, read by an earlier loop's test).
   predication/counters.py keeps 'n' a scalar counter of the 'while' loop; every read of 'n' outside
   that loop reads the per-lane live-out 'n_out'. Two facts were wrong: (1) the shapes the promotion
   decides with did not know 'n_out' (a new symbol: taken as uniform), so the 'for' loop's test
   'k < n_out' became a scalar test on a vector; (2) 'n_out' was set after 'n = 5' only when lanes may
   skip the 'while' loop, so a read between 'n = 5' and the loop read a vector never written (with (1)
   fixed alone: wrong results, caught by --verify).

   Fix: predication/counters.py: 'n_out' is varying in those shapes; 'n_out = n' follows 'n = 5' also
   when a statement between it and the loop reads 'n'; a counter counts as a scalar only in the tests
   of its own loop and the loops inside it. */
int f(int x)
{
    int n = 5;
    int s = 0;
    for (int k = 0; k < n; k++) {
        s += x;
    }
    while (n < 100) {
        if (x < n)
            break;
        n = n + 1;
    }
    return n + s;
}
