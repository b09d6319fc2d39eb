package jsjson

import (
	"math"
	"strconv"
)

// AppendNumber appends f as JSON.stringify writes a number: NaN and
// ±Infinity become null, and everything else follows ECMAScript
// Number::toString(10). That is the shortest decimal that round-trips,
// laid out as an integer without exponent below 1e21 (123456789012345680000),
// in fixed notation down to 1e-6 (0.000001), and otherwise with an exponent
// that always has a sign (1e-7, 1.5e+21). -0 is written as 0.
func AppendNumber(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return append(dst, "null"...)
	case f == 0:
		return append(dst, '0')
	case f == math.Trunc(f) && math.Abs(f) < 1<<53:
		// Below 2^53 every integer is exact, so its digits are the
		// shortest round-trip form.
		return strconv.AppendInt(dst, int64(f), 10)
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	var buf [32]byte
	digits, n := shortest(buf[:0], f)
	return layout(dst, digits, n)
}

// shortest returns the shortest round-trip decimal digits of the positive
// finite f and the decimal point position n, so that f = 0.digits × 10^n
// (ECMAScript's s, k and n with k = len(digits)).
func shortest(buf []byte, f float64) ([]byte, int) {
	e := strconv.AppendFloat(buf, f, 'e', -1, 64) // d[.ddd]e±XX
	p := len(e) - 1
	for e[p] != 'e' {
		p--
	}
	exp, _ := strconv.Atoi(string(e[p+1:]))
	digits := e[:p]
	if len(digits) > 1 {
		digits = append(digits[:1], digits[2:]...) // drop the '.'
	}
	return digits, exp + 1
}

// layout appends digits with point position n following the steps of
// ECMAScript Number::toString.
func layout(dst, digits []byte, n int) []byte {
	k := len(digits)
	switch {
	case k <= n && n <= 21:
		dst = append(dst, digits...)
		for ; k < n; k++ {
			dst = append(dst, '0')
		}
		return dst
	case 0 < n && n <= 21:
		dst = append(dst, digits[:n]...)
		return append(append(dst, '.'), digits[n:]...)
	case -6 < n && n <= 0:
		dst = append(dst, '0', '.')
		for ; n < 0; n++ {
			dst = append(dst, '0')
		}
		return append(dst, digits...)
	}
	dst = append(dst, digits[0])
	if k > 1 {
		dst = append(append(dst, '.'), digits[1:]...)
	}
	dst = append(dst, 'e')
	if n-1 >= 0 {
		dst = append(dst, '+')
	}
	return strconv.AppendInt(dst, int64(n-1), 10)
}
