module example.com/pisession-demo

go 1.26.0

require piweb v0.0.0

require (
	github.com/google/uuid v1.6.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.44.0 // indirect
)

replace piweb => ../..
