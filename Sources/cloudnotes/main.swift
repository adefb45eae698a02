import Cloud; import ArgumentParser; print("hi")
