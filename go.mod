module piweb

go 1.26
