print("cloudnotes-sim: under construction")
