module sprint/demo/testbed/delay

go 1.22
