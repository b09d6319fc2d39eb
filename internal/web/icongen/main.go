//go:build ignore

// icongen draws piweb's app icons (static/icons/icon-*.png): the favicon's
// rounded square in the accent colour with a π drawn from rectangles, so
// that no font is needed. Run from internal/web: go run icongen/main.go
package main

import (
	"image"
	"image/color"
	"image/png"
	"log"
	"os"
)

var (
	accent = color.RGBA{0x5b, 0x5b, 0xd6, 0xff}
	white  = color.RGBA{0xff, 0xff, 0xff, 0xff}
)

func main() {
	for _, n := range []int{192, 512} {
		for _, maskable := range []bool{false, true} {
			name := "static/icons/icon-" + itoa(n) + ".png"
			if maskable {
				name = "static/icons/maskable-" + itoa(n) + ".png"
			}
			write(name, draw(n, maskable))
		}
	}
}

// draw makes an n×n icon; a maskable one fills the square (the platform
// rounds it) and keeps the glyph in the inner 60 % safe zone.
func draw(n int, maskable bool) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, n, n))
	r := float64(n) * 7 / 32
	if maskable {
		r = 0
	}
	for y := 0; y < n; y++ {
		for x := 0; x < n; x++ {
			if inRounded(float64(x)+.5, float64(y)+.5, float64(n), r) {
				img.Set(x, y, accent)
			}
		}
	}
	s := float64(n) / 32 // glyph in favicon units
	if maskable {
		s *= 0.75
	}
	c := float64(n) / 2
	rect := func(x0, y0, x1, y1 float64) { // favicon units around the centre (16, 16)
		for y := int(c + (y0-16)*s); y < int(c+(y1-16)*s); y++ {
			for x := int(c + (x0-16)*s); x < int(c+(x1-16)*s); x++ {
				img.Set(x, y, white)
			}
		}
	}
	rect(7, 9, 25, 12)       // the bar
	rect(10.5, 12, 13.5, 24) // left leg
	rect(18.5, 12, 21.5, 24) // right leg
	return img
}

func inRounded(x, y, n, r float64) bool {
	cx, cy := clamp(x, r, n-r), clamp(y, r, n-r)
	dx, dy := x-cx, y-cy
	return dx*dx+dy*dy <= r*r
}

func clamp(v, lo, hi float64) float64 { return max(lo, min(hi, v)) }

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}

func write(name string, img image.Image) {
	f, err := os.Create(name)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		log.Fatal(err)
	}
}
