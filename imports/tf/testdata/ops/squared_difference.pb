
?
xPlaceholder*
dtype0* 
shape:ÿÿÿÿÿÿÿÿÿ
>
mConst*
dtype0*%
valueB"uoŒ?mÚ8?«jŠ>
%
ySquaredDifferencexm*
T0"ª