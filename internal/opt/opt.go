// Package opt defaults the zero values of options: every Options type's
// constructor fills what its caller left out the same way, a value not
// above zero taking the package's default.
package opt

// Positive sets *p to d when *p is not above zero (a count, a size or a
// duration the caller left unset).
func Positive[T ~int | ~int64](p *T, d T) {
	if *p <= 0 {
		*p = d
	}
}
