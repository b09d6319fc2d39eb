#include <stdio.h>
#define MAX 10
/* comment */
int main(int argc, char **argv) {
    static const unsigned long n = 0xFFul;
    printf("%d\n", argc); // print
    return NULL == argv ? 1 : 0;
}
@Override public String toString() { return "x"; }
