package session

import "time"

var timeZero time.Time
