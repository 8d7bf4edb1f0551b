module allot

go 1.26
