package pisession

import "time"

var timeZero time.Time
