package main

import "fmt"

// Hello says hi.
func Hello(name string) (int, error) {
	x := 0x1F + 3.5e2
	s := `raw
str`
	fmt.Println("hi \"there\"", name, nil)
	return len(name), nil
}
